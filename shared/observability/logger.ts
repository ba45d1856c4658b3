import { Logger } from '@aws-lambda-powertools/logger';
import { readSetting } from '../config';

/** One structured JSON logger for every function; Powertools reads the level from POWERTOOLS_LOG_LEVEL. */
export const logger = new Logger({ serviceName: readSetting('serviceName') });

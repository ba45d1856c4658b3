import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { handler as floor } from '../floor';

/** The floor plus Powertools Metrics publishing one metric: what adding Metrics costs a function. */
const metrics = new Metrics({ namespace: 'BookLibrary', serviceName: 'book-library' });

export const handler: typeof floor = async (event) => {
  const result = await floor(event);
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
  return result;
};

/** References into the document's components, and the JSON media type's content map. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
export const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

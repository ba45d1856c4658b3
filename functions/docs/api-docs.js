// Runs in the browser once Swagger UI's bundle has loaded. The document's address is taken
// relative to the page, so the reference also works under a stage prefix (/prod/api/docs).
// validatorUrl: null keeps Swagger UI from sending the document to its online validator.
globalThis.ui = globalThis.SwaggerUIBundle({
  url: new URL('openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  docExpansion: 'list',
  displayRequestDuration: true,
});

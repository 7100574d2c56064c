// Renders the service's own OpenAPI document. No validator badge: it would call an outside host.
// In development the page carries the development token: Authorize starts with it.
const developmentToken = document.getElementById('development-token');
window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  onComplete: () => {
    if (developmentToken) {
      window.ui.preauthorizeApiKey('bearerAuth', JSON.parse(developmentToken.textContent));
    }
  },
});

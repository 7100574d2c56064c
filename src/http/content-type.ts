// Defined with the error renderers, which sit below HTTP (src/errors/rest.ts).
export { JSON_CONTENT_TYPE } from '../errors/rest.js';

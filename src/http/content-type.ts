/** The content type of every JSON answer, on both edges: with its charset, as RFC 8259 writes it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

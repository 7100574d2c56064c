/** A request as the harness sends it (to check a server, or as one of autocannon's requests). */
export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** Sends one request with fetch and reads the whole body as text (byte comparisons need it raw). */
export async function send(baseUrl: string, request: HttpRequest): Promise<HttpResponse> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

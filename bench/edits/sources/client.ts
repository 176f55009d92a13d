import { EventEmitter } from "events";

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  retries?: number;
}

export interface ApiError {
  status: number;
  message: string;
  retryable: boolean;
}

const DEFAULT_TIMEOUT_MS = 15000;
const DEFAULT_RETRIES = 2;
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

export const messages = {
  offline: "You’re offline. We’ll retry when the connection is back.",
  unauthorized: "Your session has expired. Please sign in again.",
  notFound: "We couldn’t find what you were looking for.",
  generic: "Something went wrong. Please try again.",
};

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ApiClient extends EventEmitter {
  private token: string | null = null;

  constructor(private readonly baseUrl: string) {
    super();
  }

  setToken(token: string | null): void {
    this.token = token;
    this.emit("token", token);
  }

  private headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/json",
      ...extra,
    };
    if (this.token) {
      headers["Authorization"] = `Bearer ${this.token}`;
    }
    return headers;
  }

  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const retries = options.retries ?? DEFAULT_RETRIES;
    let attempt = 0;
    for (;;) {
      try {
        return await this.once<T>(path, options);
      } catch (error) {
        const apiError = error as ApiError;
        if (!apiError.retryable || attempt >= retries) {
          throw error;
        }
        attempt += 1;
        await sleep(250 * 2 ** attempt);
      }
    }
  }

  private async once<T>(path: string, options: RequestOptions): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method: options.method ?? "GET",
        headers: this.headers(options.headers),
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: controller.signal,
      });
      if (!response.ok) {
        throw this.toError(response.status, await response.text());
      }
      if (response.status === 204) {
        return undefined as T;
      }
      return (await response.json()) as T;
    } finally {
      clearTimeout(timer);
    }
  }

  private toError(status: number, body: string): ApiError {
    if (status === 401) {
      this.emit("unauthorized");
      return { status, message: messages.unauthorized, retryable: false };
    }
    if (status === 404) {
      return { status, message: messages.notFound, retryable: false };
    }
    return {
      status,
      message: body || messages.generic,
      retryable: RETRYABLE_STATUS.has(status),
    };
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>(path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>(path, { method: "POST", body });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>(path, { method: "PUT", body });
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>(path, { method: "DELETE" });
  }
}

export function describeError(error: ApiError): string {
  if (error.status === 0) {
    return messages.offline;
  }
  return `${error.status}: ${error.message}`;
}

// The HTTP API as the page uses it: the API key (session storage, sent as a header, never
// in a URL) and the one error shape, {"error": {"code", "message", "details"}}.

const KEY = "citewise.apiKey";

export class ApiError extends Error {
  constructor(status, code, message, details = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const apiKey = {
  get: () => sessionStorage.getItem(KEY) || "",
  set: (value) => (value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY)),
};

export function authHeaders(extra = {}) {
  const key = apiKey.get();
  return key ? { ...extra, Authorization: `Bearer ${key}` } : { ...extra };
}

/** Listeners called on a 401, so the page can ask for a (new) key. */
export const unauthorized = new Set();

export async function errorOf(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  const err = body && body.error ? body.error : {};
  return new ApiError(response.status, err.code || `http_${response.status}`,
    err.message || response.statusText || "request failed", err.details || {});
}

export async function request(method, path, { json, body, headers = {}, signal } = {}) {
  const init = { method, headers: authHeaders(headers), signal };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    init.body = body;
  }
  const response = await fetch(path, init);
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401) unauthorized.forEach((fn) => fn(error));
    throw error;
  }
  return response;
}

export const api = {
  get: async (path) => (await request("GET", path)).json(),
  post: async (path, json) => (await request("POST", path, { json })).json(),
  patch: async (path, json) => (await request("PATCH", path, { json })).json(),
  del: async (path) => { await request("DELETE", path); },
  text: async (path) => (await request("GET", path)).text(),
};

/** Upload one file with progress (fetch has no upload progress; XHR does). */
export function upload(file, name, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/documents");
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener("load", () => {
      const body = xhr.response;
      if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(body); return; }
      const err = body && body.error ? body.error : {};
      if (xhr.status === 401) unauthorized.forEach((fn) => fn(err));
      reject(new ApiError(xhr.status, err.code || `http_${xhr.status}`,
        err.message || "upload failed", err.details || {}));
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "network_error", "the upload failed")));
    const form = new FormData();
    form.append("file", file, name);
    xhr.send(form);
  });
}

/** Download a response body as a file (the key stays in a header). */
export async function download(path, filename) {
  const response = await request("GET", path);
  const url = URL.createObjectURL(await response.blob());
  const a = Object.assign(document.createElement("a"), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

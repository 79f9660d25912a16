/**
 * The core's Transport over UrlFetchApp: requests wait on the loop (loop.ts) and go out together in one
 * fetchAll (Apps Script's only parallel I/O), muteHttpExceptions so a 4xx/5xx is an answer for the core's
 * error mapping, not an exception. UrlFetchApp throws only when there was no answer at all.
 */
import { TransportError, type TransportErrorKind, type TransportRequest, type TransportResponse } from '@company-data/core/transport';
import type { Queued } from './loop';

export type FetchJob = Queued<TransportRequest, TransportResponse>;

function fetchRequest(r: TransportRequest): GoogleAppsScript.FetchRequest {
  const headers = { ...r.headers };
  // UrlFetchApp takes the content type as its own field.
  const contentType = headers['content-type'];
  delete headers['content-type'];
  return {
    url: r.url,
    method: r.method.toLowerCase(),
    headers,
    muteHttpExceptions: true,
    followRedirects: true,
    ...(r.body !== undefined ? { payload: r.body, contentType: contentType ?? 'application/json' } : {}),
  };
}

function response(res: GoogleAppsScript.HTTPResponse): TransportResponse {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.getAllHeaders())) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.getResponseCode(), headers, body: res.getContentText() };
}

/** Google's texts for a request that got no answer, as the core's kinds. */
function failureKind(message: string): TransportErrorKind {
  if (/dns|address unavailable|unknown host/i.test(message)) return 'dns';
  if (/timeout|timed out/i.test(message)) return 'timeout';
  return 'other';
}

/** Sends a batch: one fetch for one request, else one fetchAll (Google answers in request order). */
export function sendBatch(batch: readonly FetchJob[]): void {
  let answers: GoogleAppsScript.HTTPResponse[];
  try {
    const requests = batch.map((j) => fetchRequest(j.request));
    answers = requests.length === 1 ? [UrlFetchApp.fetch(requests[0]!.url, requests[0]!)] : UrlFetchApp.fetchAll(requests);
  } catch (e) {
    // The message names the URL at most, never the headers (where the key is).
    const message = e instanceof Error ? e.message : String(e);
    for (const j of batch) j.reject(new TransportError(failureKind(message), message));
    return;
  }
  batch.forEach((j, i) => j.resolve(response(answers[i]!)));
}

import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { AnyOperation } from '@company-data/core/operation';
import type { ParamSpec } from '@company-data/core/params';
import { CompanyDataError, PlanRequiredError, ValidationError } from '@company-data/core/errors';
import { humanize } from './descriptions/fields';
import { WebhookSetupError } from './trigger/lifecycle';

/** The field name as the user sees it in the node: "Registry Code", "Companies 2 → Registry Code". */
export function fieldLabel(op: AnyOperation | undefined, path: string): string {
  if (!path) return '';
  const [head, ...rest] = path.split('.');
  const spec = op ? (op.params as Record<string, ParamSpec>)[head!] : undefined;
  const parts = [spec?.label ?? humanize(head!)];
  for (const seg of rest) parts.push(/^\d+$/.test(seg) ? `#${Number(seg) + 1}` : humanize(seg));
  return parts.join(' → ');
}

/** Hints written for a library user that say something else in n8n, where the key lives in the credential. */
const n8nHints: Record<string, string> = {
  api_key_required: 'Open the Company Data API credential and enter your API key.',
  invalid_api_key: 'Open the Company Data API credential and check the API key. A revoked or lost key must be replaced by the operator.',
};

/** Fields of the credential as the user sees them there. */
const credentialFields: Record<string, string> = { baseUrl: 'Base URL', apiKey: 'API Key' };

function details(e: CompanyDataError): string {
  const bits = [(e.code && n8nHints[e.code]) || e.hint];
  if (e.code) bits.push(`Error code: ${e.code}.`);
  if (e.requestId) bits.push(`Request ID: ${e.requestId}.`);
  return bits.join(' ');
}

/**
 * Client errors → n8n errors, the one mapping for every node and both triggers. A rule broken before sending is the user's field (NodeOperationError
 * naming it); anything the service answered is a NodeApiError with its code and request id.
 */
export function toNodeError(
  node: INode,
  error: unknown,
  op: AnyOperation | undefined,
  itemIndex?: number,
): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  if (!(error instanceof CompanyDataError)) {
    return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
  }
  if (error instanceof WebhookSetupError) {
    // The user's setup, not the service's answer: what to change is the whole description.
    return new NodeOperationError(node, error.message, { itemIndex, description: error.hint });
  }
  if (error instanceof ValidationError && error.field in credentialFields && !(op && error.field in op.params)) {
    const field = credentialFields[error.field]!;
    return new NodeOperationError(node, `${field} in the Company Data API credential: ${error.rule}`, {
      itemIndex,
      description: `Open the credential and correct the ${field}.`,
    });
  }
  if (error instanceof ValidationError) {
    const field = fieldLabel(op, error.field);
    const message = field ? `${field}: ${error.rule}` : error.rule;
    if (error.status === undefined) {
      return new NodeOperationError(node, message, {
        itemIndex,
        description: `Correct the value of ${field || 'the parameters'} and run again.`,
      });
    }
    return new NodeApiError(node, errorJson(error), { itemIndex, httpCode: String(error.status), message, description: details(error) });
  }
  const message = error instanceof PlanRequiredError ? `This operation needs the API plan (${error.message})` : error.message;
  return new NodeApiError(node, errorJson(error), {
    itemIndex,
    ...(error.status !== undefined ? { httpCode: String(error.status) } : {}),
    message,
    description: details(error),
  });
}

/**
 * What the error carries into n8n's error view: never the key (the client scrubbed the texts). The
 * code is company_data_code: NodeApiError reads code, error_code, errorCode and status_code as the
 * HTTP status when it is given none (no answer: connection refused, no key), and would show
 * "HTTP code: connection_refused".
 */
function errorJson(e: CompanyDataError): JsonObject {
  const out: JsonObject = { message: e.message, company_data_code: e.code };
  if (e.status !== undefined) out.status = e.status;
  if (e.requestId) out.request_id = e.requestId;
  if (e instanceof ValidationError && e.field) out.field = e.field;
  return out;
}

export {
  computeSignature,
  signWebhook,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  EVENT_ID_HEADER,
  SIGNATURE_SCHEME,
  type SignWebhookInput,
} from './sign';
export {
  checkWebhook,
  checkWebhookHeaders,
  verifyWebhook,
  SignatureVerificationError,
  type SignatureFailure,
  type SignatureFailureReason,
  type WebhookCheck,
  type VerifyWebhookInput,
  type WebhookHeaders,
} from './verify';
export { layeredDedupe, MemoryDedupeStore, newIds, type DedupeStore, type MemoryDedupeStoreOptions } from './dedupe';

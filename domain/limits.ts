import { DomainError } from './errors.js';

export const UPLOAD_CAP_BYTES = 5_242_880;
export const SPEC_CAP_BYTES = 5_242_880;

export function checkUploadSize(bytes: number): void {
  if (bytes > UPLOAD_CAP_BYTES) {
    throw new DomainError(
      'payload_too_large',
      `413 payload too large: the body is ${bytes} bytes, over the ${UPLOAD_CAP_BYTES}-byte (5 MiB) upload cap. ` +
        'Split the dashboard into several files or move data into a refreshable spec.',
    );
  }
}

export function checkSpecSize(bytes: number): void {
  if (bytes > SPEC_CAP_BYTES) {
    throw new DomainError(
      'payload_too_large',
      `spec is ${bytes} bytes, over the ${SPEC_CAP_BYTES}-byte limit. ` +
        'Move inline data into queries, or trim rows and panels, and publish again.',
    );
  }
}

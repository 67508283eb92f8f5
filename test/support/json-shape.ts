/**
 * A small JSON-Schema-like checker for the client config files the service generates: enough of
 * the vocabulary (type, required, properties, additionalProperties, const, enum, pattern, items,
 * minItems, maxLength) to write each client's documented shape down as data in a test.
 */
export interface Shape {
  type?: 'object' | 'array' | 'string' | 'boolean' | 'number';
  required?: string[];
  properties?: Record<string, Shape>;
  /** A shape every other property must have, or false when no other property is allowed. */
  additionalProperties?: Shape | false;
  minProperties?: number;
  const?: unknown;
  enum?: unknown[];
  pattern?: RegExp;
  maxLength?: number;
  items?: Shape;
  minItems?: number;
}

/** Every way `value` departs from `shape`, as `path: problem` lines; empty when it conforms. */
export function shapeErrors(value: unknown, shape: Shape, path = '$'): string[] {
  const errors: string[] = [];
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (shape.type && kind !== shape.type) return [`${path}: expected ${shape.type}, got ${kind}`];
  if ('const' in shape && value !== shape.const) errors.push(`${path}: expected ${JSON.stringify(shape.const)}, got ${JSON.stringify(value)}`);
  if (shape.enum && !shape.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(shape.enum)}`);
  if (typeof value === 'string') {
    if (shape.pattern && !shape.pattern.test(value)) errors.push(`${path}: ${JSON.stringify(value)} does not match ${shape.pattern}`);
    if (shape.maxLength !== undefined && value.length > shape.maxLength) errors.push(`${path}: longer than ${shape.maxLength}`);
  }
  if (Array.isArray(value)) {
    if (shape.minItems !== undefined && value.length < shape.minItems) errors.push(`${path}: fewer than ${shape.minItems} items`);
    if (shape.items) value.forEach((item, i) => errors.push(...shapeErrors(item, shape.items!, `${path}[${i}]`)));
  }
  if (kind === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (shape.minProperties !== undefined && keys.length < shape.minProperties) errors.push(`${path}: fewer than ${shape.minProperties} properties`);
    for (const key of shape.required ?? []) if (!(key in record)) errors.push(`${path}: missing ${key}`);
    for (const key of keys) {
      const declared = shape.properties?.[key];
      if (declared) errors.push(...shapeErrors(record[key], declared, `${path}.${key}`));
      else if (shape.additionalProperties === false) errors.push(`${path}: unexpected property ${key}`);
      else if (shape.additionalProperties) errors.push(...shapeErrors(record[key], shape.additionalProperties, `${path}.${key}`));
    }
  }
  return errors;
}

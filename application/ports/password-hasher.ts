export const PasswordHasher = Symbol.for('PasswordHasher');
/** Slow, salted password hashing (scrypt or argon2id); `verify` compares in constant time. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

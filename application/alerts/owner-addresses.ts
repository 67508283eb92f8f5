import type { OwnerRef } from '../../domain/scope.js';
import type { AccountStore } from '../ports/account-store.js';

/** Who hears about an owner's dashboard by email: the user, or a workspace's admins. */
export async function ownerAddresses(accounts: AccountStore, owner: OwnerRef): Promise<string[]> {
  if (owner.kind === 'user') return [(await accounts.findUserById(owner.id))?.email].filter((e): e is string => !!e);
  return (await accounts.listMembers(owner.id)).filter((m) => m.role === 'admin').map((m) => m.user.email);
}

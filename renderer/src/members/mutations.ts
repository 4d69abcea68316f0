import { useOperation } from '../operation';
import { memberKeys } from './queries';

export const useRegisterMember = () =>
  useOperation('members.register', (i) => [memberKeys.list(i.clientId)], ['username', 'pwd', 'email', 'gender', 'birthday', 'expiresin']);

/** A login or a logout issues or revokes a token; the member list shows neither. */
export const useLogIn = () => useOperation('members.login', () => [], ['username', 'pwd', 'expiresin']);

export const useLogOutToken = () => useOperation('members.logout', () => [], ['token']);

export const useDeleteMember = () => useOperation('members.delete', (i) => [memberKeys.list(i.clientId)]);

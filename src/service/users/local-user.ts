/** The one user of a local service: the owner of everything it stores. */
export const LOCAL_USER = {
  id: 'local',
  name: 'Timemark local user',
  email: 'local@timemark.invalid',
  role: { id: 'owner', name: 'Owner' },
} as const;

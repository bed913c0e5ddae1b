// A list of host names in an environment variable (ADMIN_HOSTS): comma-separated, no ports.

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** The names, lower case, without a trailing dot; or the first item that is no host name. */
export function hostNames(text: string | undefined): { names: string[] } | { bad: string } {
  const names: string[] = [];
  for (const item of (text ?? '').split(',')) {
    const name = item.trim().toLowerCase().replace(/\.$/, '');
    if (name === '') continue;
    if (!HOST_NAME.test(name) || name.length > 253) return { bad: item.trim() };
    names.push(name);
  }
  return { names };
}

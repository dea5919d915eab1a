/** Where a system program is installed (`/usr/bin`, else `/bin`), or undefined without it. */
export function systemProgram(name: string): string | undefined {
  return [`/usr/bin/${name}`, `/bin/${name}`].find((path) => {
    try {
      Deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  });
}

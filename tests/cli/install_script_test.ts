/**
 * install.sh against a release directory served on loopback: it installs the binary for this
 * machine when the checksum matches, and refuses (installing nothing) when it does not, when the
 * platform has no binary, or when the download fails.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const INSTALLER = `${REPO_ROOT}/install.sh`;
const FAKE_BINARY = "#!/bin/sh\necho 'llama-agent 9.9.9'\n";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function hostAsset(): string {
  const arch = Deno.build.arch === "x86_64" ? "x64" : "arm64";
  return `llama-agent-${Deno.build.os}-${arch}`;
}

interface Place {
  readonly root: string;
  readonly release: string;
  readonly installDir: string;
  readonly url: string;
}

/** A release directory, served on 127.0.0.1 while `fn` runs. */
async function withRelease(
  assets: Readonly<Record<string, string>>,
  fn: (place: Place) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "install_sh_" });
  const release = `${root}/release`;
  await Deno.mkdir(release);
  for (const [name, content] of Object.entries(assets)) {
    await Deno.writeTextFile(`${release}/${name}`, content);
  }
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const name = new URL(request.url).pathname.slice(1);
    try {
      return new Response(await Deno.readFile(`${release}/${name}`));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  try {
    await fn({
      root,
      release,
      installDir: `${root}/home/.local/bin`,
      url: `http://127.0.0.1:${server.addr.port}`,
    });
  } finally {
    await server.shutdown();
    await Deno.remove(root, { recursive: true });
  }
}

async function install(
  place: Place,
  options: { path?: string; args?: string[]; noHome?: boolean } = {},
) {
  const output = await new Deno.Command("sh", {
    args: [INSTALLER, ...(options.args ?? [])],
    env: {
      ...(options.noHome ? {} : { HOME: `${place.root}/home` }),
      PATH: options.path ?? Deno.env.get("PATH") ?? "/usr/bin:/bin",
      LLAMA_AGENT_RELEASE_URL: place.url,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

async function installedFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

Deno.test("install.sh installs this machine's binary into ~/.local/bin when its checksum matches", async () => {
  const asset = hostAsset();
  const sums = `${await sha256(FAKE_BINARY)}  ${asset}\n${"0".repeat(64)}  other-asset\n`;
  await withRelease({ [asset]: FAKE_BINARY, SHA256SUMS: sums }, async (place) => {
    const result = await install(place);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await installedFiles(place.installDir), ["llama-agent"]);
    const run = await new Deno.Command(`${place.installDir}/llama-agent`, { stdout: "piped" })
      .output();
    assertEquals(new TextDecoder().decode(run.stdout), "llama-agent 9.9.9\n");
    assertStringIncludes(result.stderr, `installed ${place.installDir}/llama-agent`);
    assertStringIncludes(result.stderr, "is not on your PATH");
  });
});

Deno.test("install.sh --dir installs elsewhere and replaces an earlier binary", async () => {
  const asset = hostAsset();
  const sums = `${await sha256(FAKE_BINARY)}  ${asset}\n`;
  await withRelease({ [asset]: FAKE_BINARY, SHA256SUMS: sums }, async (place) => {
    const dir = `${place.root}/tools`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/llama-agent`, "old");
    const result = await install(place, { args: ["--dir", dir] });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await Deno.readTextFile(`${dir}/llama-agent`), FAKE_BINARY);
    assertEquals(await installedFiles(dir), ["llama-agent"]);
  });
});

Deno.test("install.sh refuses a binary whose checksum does not match, and installs nothing", async () => {
  const asset = hostAsset();
  const sums = `${await sha256("something else")}  ${asset}\n`;
  await withRelease({ [asset]: FAKE_BINARY, SHA256SUMS: sums }, async (place) => {
    const result = await install(place);
    assertEquals(result.code, 5);
    assertStringIncludes(result.stderr, `checksum mismatch for ${asset}`);
    assertStringIncludes(result.stderr, "not installing it");
    assertEquals(await installedFiles(place.installDir), []);
  });
});

Deno.test("install.sh refuses a binary SHA256SUMS does not list", async () => {
  const asset = hostAsset();
  await withRelease(
    { [asset]: FAKE_BINARY, SHA256SUMS: `${"0".repeat(64)}  other\n` },
    async (place) => {
      const result = await install(place);
      assertEquals(result.code, 5);
      assertStringIncludes(result.stderr, `SHA256SUMS has no line for ${asset}`);
      assertEquals(await installedFiles(place.installDir), []);
    },
  );
});

Deno.test("install.sh on a platform without a binary says which exist and installs nothing", async () => {
  await withRelease({}, async (place) => {
    const bin = `${place.root}/fake-bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/uname`,
      '#!/bin/sh\ncase "$1" in -s) echo SunOS ;; -m) echo sparc64 ;; esac\n',
    );
    await Deno.chmod(`${bin}/uname`, 0o755);
    const result = await install(place, { path: `${bin}:${Deno.env.get("PATH")}` });
    assertEquals(result.code, 3);
    assertStringIncludes(result.stderr, "no prebuilt binary for SunOS sparc64");
    assertStringIncludes(result.stderr, "linux-x64");
    assertEquals(await installedFiles(place.installDir), []);
  });
});

Deno.test("install.sh reports a failed download with its URL", async () => {
  await withRelease({ SHA256SUMS: "" }, async (place) => {
    const result = await install(place);
    assertEquals(result.code, 4);
    assertStringIncludes(result.stderr, `cannot download ${place.url}/${hostAsset()}`);
    assertEquals(await installedFiles(place.installDir), []);
  });
});

Deno.test("install.sh rejects unknown arguments", async () => {
  await withRelease({}, async (place) => {
    const result = await install(place, { args: ["--prefix", "/usr"] });
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, 'unknown argument "--prefix"');
  });
});

Deno.test("install.sh reads SHA256SUMS in binary mode, with CRLF line ends and upper-case hex", async () => {
  const asset = hostAsset();
  const sums = `${(await sha256(FAKE_BINARY)).toUpperCase()} *${asset}\r\n`;
  await withRelease({ [asset]: FAKE_BINARY, SHA256SUMS: sums }, async (place) => {
    const result = await install(place);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await installedFiles(place.installDir), ["llama-agent"]);
  });
});

Deno.test("install.sh without HOME installs where --dir says, and asks for --dir otherwise", async () => {
  const asset = hostAsset();
  const sums = `${await sha256(FAKE_BINARY)}  ${asset}\n`;
  await withRelease({ [asset]: FAKE_BINARY, SHA256SUMS: sums }, async (place) => {
    const refused = await install(place, { noHome: true });
    assertEquals(refused.code, 2);
    assertStringIncludes(refused.stderr, "HOME is not set: pass --dir DIR");
    const dir = `${place.root}/with space/bin`;
    const result = await install(place, { noHome: true, args: ["--dir", dir] });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await installedFiles(dir), ["llama-agent"]);
  });
});

Deno.test("install.sh --help works when the script comes through a pipe", async () => {
  const child = new Deno.Command("sh", {
    args: ["-s", "--", "--help"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(await Deno.readFile(INSTALLER));
  await writer.close();
  const output = await child.output();
  assertEquals(output.code, 0);
  assertStringIncludes(new TextDecoder().decode(output.stdout), "Usage: sh install.sh");
});

// Compiled by tsc against the web build's declarations (remote.d.ts is the
// same in the references flavour), never run: a `Stub<T>` parameter of the
// other side's API is passed as `reference(t)` or a stub, a handler's
// `reference(t)` result arrives as a `Stub<T>`, a stub's calls are promises
// and it can be released. Each @ts-expect-error must meet an error.
import { Peer, portTransport } from "../../pkg-web/wiggum_rpc.js";
import { type Remote, type Stub, reference, withOptions } from "../../pkg-web/remote.js";

interface Project {
  readFile(path: string): string;
  writeFile(path: string, text: string): void;
  readonly name: string;
}

interface BuildApi {
  build(entry: string, onLog: Stub<(line: string, level: number) => void>): Promise<{ ok: boolean }>;
  openProject(name: string): Stub<Project>;
}

const peer = new Peer(portTransport(new MessageChannel().port1));
const api: Remote<BuildApi> = peer.remote<BuildApi>();

export async function use(): Promise<string> {
  const done: { ok: boolean } = await api.build("src/main.tsx", reference((line: string, level: number) => console.log(level, line)));
  // @ts-expect-error a plain function is not sent by reference: it must be marked
  await api.build("src/main.tsx", (line: string) => console.log(line));
  // @ts-expect-error the callback's parameters are checked
  await api.build("src/main.tsx", reference((line: number) => console.log(line)));

  const project: Stub<Project> = await api.openProject("demo");
  const text: Promise<string> = project.readFile("a.txt");
  // @ts-expect-error a stub's methods return promises
  const sync: string = project.readFile("a.txt");
  // @ts-expect-error arguments are checked
  await project.writeFile("a.txt", 1);
  // @ts-expect-error only methods are on a stub
  project.name;
  const quick: Promise<string> = withOptions(project, { timeout: 500, signal: AbortSignal.timeout(1000) }).readFile("a.txt");
  // @ts-expect-error withOptions gives calls, not the stub's release
  withOptions(project, { timeout: 500 }).release();
  const released: boolean = project.release();
  await quick;
  return `${done.ok} ${await text} ${sync} ${released}`;
}

// On the serving side, the handler gets the stub: calling it makes a call back.
export async function handler(onLog: Stub<(line: string, level: number) => void>): Promise<void> {
  const answered: Promise<void> = onLog("compiling", 1);
  // @ts-expect-error a stub call is checked too
  await onLog(1, "compiling");
  await answered;
  onLog.release();
}

// A result marked by reference arrives as a stub.
interface Opens {
  open(): ReturnType<typeof reference<Project>>;
}
export async function opened(remote: Remote<Opens>): Promise<string> {
  const project: Stub<Project> = await remote.open();
  return project.readFile("b.txt");
}

// The references' limit and their leak report are typed.
export const bounded = new Peer(portTransport(new MessageChannel().port1), {
  limits: { maxReferences: 100 },
  trace: (record) => {
    if ("event" in record && record.event === "reference-leaked") console.log(record.method);
  },
});

// The `duet-rpc rpc` daemon driven by vscode-jsonrpc (the library VS Code's
// language clients use): StreamMessageReader / StreamMessageWriter on the
// child's stdio, every method, a notification, a non-ASCII payload (byte
// count ≠ character count), shutdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import rpc from "vscode-jsonrpc/node.js";

const binary = new URL("../../target/debug/duet-rpc", import.meta.url).pathname;
const version = process.env.DUET_RPC_VERSION ?? "0.1.0";

test("vscode-jsonrpc talks to duet-rpc rpc", async () => {
  const child = spawn(binary, ["rpc"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = once(child, "exit");
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();
  try {
    assert.deepEqual(await connection.sendRequest("initialize"), {
      serverInfo: { name: "duet-rpc", version },
      protocolVersion: "2.0",
    });
    const listed = await connection.sendRequest("listMethods");
    assert.deepEqual(listed.map((m) => m.name),
      ["initialize", "listMethods", "describeMethods", "version", "setLogLevel", "shutdown"]);
    const described = await connection.sendRequest("describeMethods");
    assert.deepEqual(described.find((m) => m.name === "setLogLevel").params, ["level: string"]);
    assert.deepEqual(await connection.sendRequest("version"), { version });
    assert.deepEqual(await connection.sendRequest("setLogLevel", { level: "Warn" }), { level: "warn", success: true });

    const unicode = "ÍNFO ✓ 日本";
    assert.notEqual(Buffer.byteLength(unicode), unicode.length);
    await assert.rejects(connection.sendRequest("setLogLevel", { level: unicode }), (error) => {
      assert.equal(error.code, -32602);
      assert.equal(error.data.received, unicode, "the non-ASCII payload came back intact");
      assert.deepEqual(error.data.expected, ["debug", "info", "warn", "error"]);
      return true;
    });
    await assert.rejects(connection.sendRequest("nope"), (error) => error.code === -32601);

    await connection.sendNotification("setLogLevel", { level: "info" });
    await connection.sendNotification("somethingUnknown", [1, 2]);
    assert.deepEqual(await connection.sendRequest("version"), { version }, "still serving after notifications");

    const started = Date.now();
    assert.deepEqual(await connection.sendRequest("shutdown"), { message: "Shutting down gracefully" });
    const [code] = await exited;
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 2000, "exits within 2 s");
    assert.match(stderr, /notification of unknown method 'somethingUnknown' ignored/);
  } finally {
    connection.dispose();
    child.kill();
  }
});

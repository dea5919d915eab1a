import {
  encodeGguf,
  f16Bits,
  type GgufFile,
  writeGguf,
} from "../../src/model/scripted/gguf_writer.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { readGgufHeader } from "./gguf_reader.ts";

const FILE: GgufFile = {
  metadata: {
    "general.architecture": { type: "string", value: "llama" },
    "test.u8": { type: "u8", value: 200 },
    "test.i8": { type: "i8", value: -5 },
    "test.u16": { type: "u16", value: 65000 },
    "test.i16": { type: "i16", value: -30000 },
    "test.u32": { type: "u32", value: 4_000_000_000 },
    "test.i32": { type: "i32", value: -2_000_000_000 },
    "test.f32": { type: "f32", value: 0.5 },
    "test.f64": { type: "f64", value: Math.PI },
    "test.u64": { type: "u64", value: 2n ** 40n },
    "test.i64": { type: "i64", value: -(2n ** 40n) },
    "test.bool": { type: "bool", value: true },
    "test.unicode": { type: "string", value: "▁héllo\n" },
    "test.strings": { type: "array", itemType: "string", value: ["<s>", "", "a b"] },
    "test.floats": { type: "array", itemType: "f32", value: new Float32Array([1.5, -2]) },
    "test.ints": { type: "array", itemType: "i32", value: [1, -1, 7] },
    "test.bools": { type: "array", itemType: "bool", value: [false, true] },
    "test.u64s": { type: "array", itemType: "u64", value: [1n, 2n] },
  },
  tensors: [
    {
      name: "a",
      type: "f32",
      shape: [3],
      data: () => [new Float32Array([1, 2]), new Float32Array([3])],
    },
    {
      name: "b",
      type: "f16",
      shape: [2, 2],
      data: () => [new Uint16Array([1, 0.5, -2, 65504].map(f16Bits))],
    },
  ],
};

Deno.test("the header round-trips metadata of every type and the tensor infos", () => {
  const read = readGgufHeader(encodeGguf(FILE));
  assertEquals(read.version, 3);
  const values = Object.fromEntries([...read.metadata].map(([key, entry]) => [key, entry.value]));
  assertEquals(values, {
    "general.architecture": "llama",
    "test.u8": 200,
    "test.i8": -5,
    "test.u16": 65000,
    "test.i16": -30000,
    "test.u32": 4_000_000_000,
    "test.i32": -2_000_000_000,
    "test.f32": 0.5,
    "test.f64": Math.PI,
    "test.u64": 2n ** 40n,
    "test.i64": -(2n ** 40n),
    "test.bool": true,
    "test.unicode": "▁héllo\n",
    "test.strings": ["<s>", "", "a b"],
    "test.floats": [1.5, -2],
    "test.ints": [1, -1, 7],
    "test.bools": [false, true],
    "test.u64s": [1n, 2n],
  });
  assertEquals(read.metadata.get("test.strings")?.type, 9);
  assertEquals(read.tensors, [
    { name: "a", shape: [3], type: 0, offset: 0 },
    // 12 bytes of "a" padded to the 32-byte alignment.
    { name: "b", shape: [2, 2], type: 1, offset: 32 },
  ]);
});

Deno.test("tensor data lands at its aligned offset, each tensor padded", () => {
  const bytes = encodeGguf(FILE);
  const read = readGgufHeader(bytes);
  assertEquals(read.dataStart % 32, 0);
  const view = new DataView(bytes.buffer);
  const a = [0, 1, 2].map((i) => view.getFloat32(read.dataStart + i * 4, true));
  assertEquals(a, [1, 2, 3]);
  const b = [0, 1, 2, 3].map((i) => view.getUint16(read.dataStart + 32 + i * 2, true));
  assertEquals(b, [0x3c00, 0x3800, 0xc000, 0x7bff]);
  assertEquals(bytes.length, read.dataStart + 32 + 32);
});

Deno.test("a custom alignment is written as general.alignment and used", () => {
  const read = readGgufHeader(encodeGguf({ ...FILE, alignment: 64 }));
  assertEquals(read.metadata.get("general.alignment")?.value, 64);
  assertEquals(read.tensors[1]?.offset, 64);
  assertEquals(read.dataStart % 64, 0);
});

Deno.test("the streamed file equals the in-memory encoding", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeGguf(`${dir}/m.gguf`, FILE);
    assertEquals(await Deno.readFile(`${dir}/m.gguf`), encodeGguf(FILE));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tensor with the wrong amount or kind of data is refused", () => {
  const short: GgufFile = {
    metadata: {},
    tensors: [{ name: "t", type: "f32", shape: [4], data: () => [new Float32Array(3)] }],
  };
  assertThrowsMessage(() => encodeGguf(short), 'tensor "t": expected 16 bytes of data, got 12');
  const wrongKind: GgufFile = {
    metadata: {},
    tensors: [{ name: "t", type: "f16", shape: [2], data: () => [new Float32Array(2)] }],
  };
  assertThrowsMessage(() => encodeGguf(wrongKind), "a f16 tensor got a Float32Array");
});

Deno.test("f16Bits rounds to nearest even and handles the edges", () => {
  assertEquals(f16Bits(0), 0);
  assertEquals(f16Bits(-0), 0x8000);
  assertEquals(f16Bits(1), 0x3c00);
  assertEquals(f16Bits(1 + 2 ** -11), 0x3c00); // halfway, to even
  assertEquals(f16Bits(1 + 3 * 2 ** -11), 0x3c02); // halfway, to even (up)
  assertEquals(f16Bits(65520), 0x7c00); // rounds past the largest half: infinity
  assertEquals(f16Bits(2 ** -24), 0x0001); // smallest subnormal
  assertEquals(f16Bits(2 ** -26), 0); // underflow
  assertEquals(f16Bits(Infinity), 0x7c00);
  assert((f16Bits(NaN) & 0x7c00) === 0x7c00 && (f16Bits(NaN) & 0x3ff) !== 0);
});

function assertThrowsMessage(fn: () => unknown, fragment: string): void {
  try {
    fn();
  } catch (error) {
    assert(error instanceof Error && error.message.includes(fragment), String(error));
    return;
  }
  throw new Error(`Expected an error including ${JSON.stringify(fragment)}`);
}

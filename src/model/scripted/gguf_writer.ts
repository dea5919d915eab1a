/**
 * A small GGUF v3 writer: metadata key/values and F32/F16 tensors, laid out as llama.cpp reads
 * them. Tests and benchmarks generate their models with it (no model can be downloaded there).
 *
 * Layout: magic "GGUF", version 3, tensor count (u64), metadata count (u64), the metadata, the
 * tensor infos (name, dims in ggml order, type, offset into the data section), padding to the
 * alignment, then each tensor's bytes, each padded to the alignment. All little-endian.
 */

/** The value types of GGUF metadata, by their GGUF type ids. */
const VALUE_TYPE_IDS = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const;

export type GgufNumberType = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "f32" | "f64";
export type GgufBigIntType = "u64" | "i64";

export type GgufValue =
  | { readonly type: GgufNumberType; readonly value: number }
  | { readonly type: GgufBigIntType; readonly value: bigint }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "array"; readonly itemType: GgufNumberType; readonly value: ArrayLike<number> }
  | { readonly type: "array"; readonly itemType: GgufBigIntType; readonly value: readonly bigint[] }
  | { readonly type: "array"; readonly itemType: "bool"; readonly value: readonly boolean[] }
  | { readonly type: "array"; readonly itemType: "string"; readonly value: readonly string[] };

export type GgufTensorType = "f32" | "f16";

const TENSOR_TYPE_IDS: Readonly<Record<GgufTensorType, number>> = { f32: 0, f16: 1 };
const TENSOR_TYPE_SIZES: Readonly<Record<GgufTensorType, number>> = { f32: 4, f16: 2 };

export interface GgufTensor {
  readonly name: string;
  readonly type: GgufTensorType;
  /** ggml order: the first dimension is the contiguous one (a row's length). */
  readonly shape: readonly number[];
  /**
   * The tensor's elements in order, in chunks of any size: `Float32Array` for F32, the raw half
   * bits in a `Uint16Array` for F16. A function so that a large tensor is produced while it is
   * written instead of held in memory.
   */
  readonly data: () => Iterable<Float32Array | Uint16Array>;
}

export interface GgufFile {
  /** Written in insertion order. */
  readonly metadata: Readonly<Record<string, GgufValue>>;
  readonly tensors: readonly GgufTensor[];
  /** Defaults to 32, GGUF's default; any other value is also stored as `general.alignment`. */
  readonly alignment?: number;
}

export const GGUF_DEFAULT_ALIGNMENT = 32;

/** Writes `file` to `path`, streaming tensor data chunk by chunk. */
export async function writeGguf(path: string, file: GgufFile): Promise<void> {
  using handle = await Deno.open(path, { write: true, create: true, truncate: true });
  for (const bytes of ggufChunks(file)) {
    let written = 0;
    while (written < bytes.length) written += await handle.write(bytes.subarray(written));
  }
}

/** The whole file in memory, for small files and tests. */
export function encodeGguf(file: GgufFile): Uint8Array {
  const chunks = [...ggufChunks(file)];
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The file's bytes in order: the header (with tensor infos and padding), then tensor data. */
export function* ggufChunks(file: GgufFile): Generator<Uint8Array> {
  const alignment = file.alignment ?? GGUF_DEFAULT_ALIGNMENT;
  const sizes = file.tensors.map(tensorByteSize);
  yield encodeHeader(file, alignment, sizes);
  for (const [index, tensor] of file.tensors.entries()) {
    const expected = sizes[index] ?? 0;
    let written = 0;
    for (const chunk of tensor.data()) {
      if ((tensor.type === "f32") !== (chunk instanceof Float32Array)) {
        throw new Error(
          `Cannot write tensor "${tensor.name}": a ${tensor.type} tensor got a ${chunk.constructor.name}`,
        );
      }
      written += chunk.byteLength;
      if (written > expected) break;
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    if (written !== expected) {
      throw new Error(
        `Cannot write tensor "${tensor.name}": expected ${expected} bytes of data, got ${written}`,
      );
    }
    const padding = padTo(expected, alignment) - expected;
    if (padding > 0) yield new Uint8Array(padding);
  }
}

function tensorByteSize(tensor: GgufTensor): number {
  if (tensor.shape.length === 0 || tensor.shape.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new Error(`Cannot write tensor "${tensor.name}": invalid shape [${tensor.shape}]`);
  }
  return tensor.shape.reduce((a, b) => a * b, 1) * TENSOR_TYPE_SIZES[tensor.type];
}

function padTo(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function encodeHeader(file: GgufFile, alignment: number, sizes: readonly number[]): Uint8Array {
  const metadata: Record<string, GgufValue> = { ...file.metadata };
  if (alignment !== GGUF_DEFAULT_ALIGNMENT) {
    metadata["general.alignment"] = { type: "u32", value: alignment };
  }
  const out = new ByteBuilder();
  out.bytes(new TextEncoder().encode("GGUF"));
  out.u32(3);
  out.u64(BigInt(file.tensors.length));
  out.u64(BigInt(Object.keys(metadata).length));
  for (const [key, value] of Object.entries(metadata)) {
    out.string(key);
    out.u32(VALUE_TYPE_IDS[value.type]);
    writeValue(out, value);
  }
  let offset = 0;
  for (const [index, tensor] of file.tensors.entries()) {
    out.string(tensor.name);
    out.u32(tensor.shape.length);
    for (const dim of tensor.shape) out.u64(BigInt(dim));
    out.u32(TENSOR_TYPE_IDS[tensor.type]);
    out.u64(BigInt(offset));
    offset += padTo(sizes[index] ?? 0, alignment);
  }
  out.bytes(new Uint8Array(padTo(out.length, alignment) - out.length));
  return out.finish();
}

function writeValue(out: ByteBuilder, value: GgufValue): void {
  switch (value.type) {
    case "string":
      return out.string(value.value);
    case "bool":
      return out.u8(value.value ? 1 : 0);
    case "u64":
    case "i64":
      return writeBigInt(out, value.type, value.value);
    case "array":
      out.u32(VALUE_TYPE_IDS[value.itemType]);
      out.u64(BigInt(value.value.length));
      return writeArrayItems(out, value);
    default:
      return writeNumber(out, value.type, value.value);
  }
}

function writeArrayItems(out: ByteBuilder, value: Extract<GgufValue, { type: "array" }>): void {
  switch (value.itemType) {
    case "string":
      for (const item of value.value) out.string(item);
      return;
    case "bool":
      for (const item of value.value) out.u8(item ? 1 : 0);
      return;
    case "u64":
    case "i64":
      for (const item of value.value) writeBigInt(out, value.itemType, item);
      return;
    default:
      for (let i = 0; i < value.value.length; i++) {
        writeNumber(out, value.itemType, value.value[i] ?? 0);
      }
  }
}

function writeNumber(out: ByteBuilder, numberType: GgufNumberType, value: number): void {
  const view = out.reserve(NUMBER_SIZES[numberType]);
  switch (numberType) {
    case "u8":
      return view.setUint8(0, value);
    case "i8":
      return view.setInt8(0, value);
    case "u16":
      return view.setUint16(0, value, true);
    case "i16":
      return view.setInt16(0, value, true);
    case "u32":
      return view.setUint32(0, value, true);
    case "i32":
      return view.setInt32(0, value, true);
    case "f32":
      return view.setFloat32(0, value, true);
    case "f64":
      return view.setFloat64(0, value, true);
    default:
      numberType satisfies never;
  }
}

function writeBigInt(out: ByteBuilder, type: GgufBigIntType, value: bigint): void {
  const view = out.reserve(8);
  if (type === "u64") view.setBigUint64(0, value, true);
  else view.setBigInt64(0, value, true);
}

const NUMBER_SIZES: Readonly<Record<GgufNumberType, number>> = {
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  f32: 4,
  f64: 8,
};

/** A growable little-endian byte buffer for the header. */
class ByteBuilder {
  #buffer = new Uint8Array(1024);
  #length = 0;
  readonly #encoder = new TextEncoder();

  get length(): number {
    return this.#length;
  }

  reserve(size: number): DataView {
    if (this.#length + size > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + size));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    const view = new DataView(this.#buffer.buffer, this.#length, size);
    this.#length += size;
    return view;
  }

  bytes(bytes: Uint8Array): void {
    const view = this.reserve(bytes.length);
    new Uint8Array(view.buffer, view.byteOffset, bytes.length).set(bytes);
  }

  u8(value: number): void {
    this.reserve(1).setUint8(0, value);
  }

  u32(value: number): void {
    this.reserve(4).setUint32(0, value, true);
  }

  u64(value: bigint): void {
    this.reserve(8).setBigUint64(0, value, true);
  }

  string(value: string): void {
    const encoded = this.#encoder.encode(value);
    this.u64(BigInt(encoded.length));
    this.bytes(encoded);
  }

  finish(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }
}

/** The IEEE half-precision bits of `value` (round to nearest even), for F16 tensors. */
export function f16Bits(value: number): number {
  F32_SCRATCH[0] = value;
  const bits = U32_SCRATCH[0] ?? 0;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    if (halfExponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - halfExponent;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (half + (rest > halfway || (rest === halfway && (half & 1)) ? 1 : 0));
  }
  const half = (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // Rounding may carry into the exponent, which is the correct result (up to infinity).
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}

const F32_SCRATCH = new Float32Array(1);
const U32_SCRATCH = new Uint32Array(F32_SCRATCH.buffer);

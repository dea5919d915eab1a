/**
 * A GGUF v3 header reader for tests, written apart from the writer so that a round trip checks
 * the layout rather than agreeing with itself.
 */

export type ReadValue = number | bigint | boolean | string | ReadValue[];

export interface ReadTensorInfo {
  readonly name: string;
  readonly shape: number[];
  readonly type: number;
  readonly offset: number;
}

export interface ReadGguf {
  readonly version: number;
  readonly metadata: Map<string, { type: number; value: ReadValue }>;
  readonly tensors: ReadTensorInfo[];
  /** Where tensor data starts (after the header, aligned). */
  readonly dataStart: number;
}

export function readGgufHeader(bytes: Uint8Array): ReadGguf {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const take = (n: number) => {
    const start = at;
    at += n;
    if (at > bytes.length) throw new Error(`Truncated at ${start}`);
    return start;
  };
  const u32 = () => view.getUint32(take(4), true);
  const u64 = () => Number(view.getBigUint64(take(8), true));
  const str = () => {
    const length = u64();
    return new TextDecoder().decode(bytes.subarray(take(length), at));
  };
  const value = (type: number): ReadValue => {
    switch (type) {
      case 0:
        return view.getUint8(take(1));
      case 1:
        return view.getInt8(take(1));
      case 2:
        return view.getUint16(take(2), true);
      case 3:
        return view.getInt16(take(2), true);
      case 4:
        return view.getUint32(take(4), true);
      case 5:
        return view.getInt32(take(4), true);
      case 6:
        return view.getFloat32(take(4), true);
      case 7:
        return view.getUint8(take(1)) !== 0;
      case 8:
        return str();
      case 9: {
        const itemType = u32();
        const count = u64();
        return Array.from({ length: count }, () => value(itemType));
      }
      case 10:
        return view.getBigUint64(take(8), true);
      case 11:
        return view.getBigInt64(take(8), true);
      case 12:
        return view.getFloat64(take(8), true);
      default:
        throw new Error(`Unknown value type ${type}`);
    }
  };

  const magic = new TextDecoder().decode(bytes.subarray(take(4), at));
  if (magic !== "GGUF") throw new Error(`Bad magic ${JSON.stringify(magic)}`);
  const version = u32();
  const tensorCount = u64();
  const metadataCount = u64();
  const metadata = new Map<string, { type: number; value: ReadValue }>();
  for (let i = 0; i < metadataCount; i++) {
    const key = str();
    const type = u32();
    metadata.set(key, { type, value: value(type) });
  }
  const tensors: ReadTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = str();
    const dims = u32();
    const shape = Array.from({ length: dims }, () => u64());
    tensors.push({ name, shape, type: u32(), offset: u64() });
  }
  const alignmentEntry = metadata.get("general.alignment")?.value;
  const alignment = typeof alignmentEntry === "number" ? alignmentEntry : 32;
  return { version, metadata, tensors, dataStart: Math.ceil(at / alignment) * alignment };
}

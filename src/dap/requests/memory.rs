//! The memory requests: `readMemory`, `writeMemory` and `disassemble` (DAP § Requests), with
//! the `DisassembledInstruction` shape they carry. Pure data; must not send anything.

use serde::{Deserialize, Serialize};

use super::{lenient, request};

request!(
    /// DAP § Requests › ReadMemory (when `supportsReadMemoryRequest`).
    ReadMemory, "readMemory", ReadMemoryArguments, ReadMemoryResponse
);

request!(
    /// DAP § Requests › WriteMemory (when `supportsWriteMemoryRequest`).
    WriteMemory, "writeMemory", WriteMemoryArguments, WriteMemoryResponse
);

request!(
    /// DAP § Requests › Disassemble (when `supportsDisassembleRequest`).
    Disassemble, "disassemble", DisassembleArguments, DisassembleResponse
);

/// DAP § Requests › ReadMemory `ReadMemoryArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryArguments {
    /// Memory reference to the base location from which data should be read.
    pub memory_reference: String,
    /// Offset (in bytes) to be applied to the reference location before reading data. Can be
    /// negative.
    pub offset: i64,
    /// Number of bytes to read at the specified location and offset.
    pub count: u64,
}

/// DAP § Requests › ReadMemory response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMemoryResponse {
    /// The address of the first byte of data returned, treated as a hex value if prefixed with
    /// `0x`, or as a decimal value otherwise.
    #[serde(default, deserialize_with = "lenient::value")]
    pub address: Option<String>,
    /// The number of unreadable bytes encountered after the last successfully read byte.
    #[serde(default, deserialize_with = "lenient::value")]
    pub unreadable_bytes: Option<u64>,
    /// The bytes read from memory, encoded using base64; absent when nothing could be read.
    #[serde(default, deserialize_with = "lenient::value")]
    pub data: Option<String>,
}

/// DAP § Requests › WriteMemory `WriteMemoryArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteMemoryArguments {
    /// Memory reference to the base location to which data should be written.
    pub memory_reference: String,
    /// Offset (in bytes) to be applied to the reference location before writing data. Can be
    /// negative.
    pub offset: i64,
    /// Whether the adapter may write fewer bytes than given (agentdap sends `false`: all or
    /// an error).
    pub allow_partial: bool,
    /// Bytes to write, encoded using base64.
    pub data: String,
}

/// DAP § Requests › WriteMemory response body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteMemoryResponse {
    /// The offset of the first byte written, relative to the request's reference (with
    /// `allowPartial`).
    #[serde(default, deserialize_with = "lenient::value")]
    pub offset: Option<i64>,
    /// The number of bytes written (with `allowPartial`; absent: all of them).
    #[serde(default, deserialize_with = "lenient::value")]
    pub bytes_written: Option<u64>,
}

/// DAP § Requests › Disassemble `DisassembleArguments`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleArguments {
    /// Memory reference to the base location containing the instructions to disassemble.
    pub memory_reference: String,
    /// Offset (in bytes) to be applied to the reference location before disassembling.
    pub offset: i64,
    /// Offset (in instructions) to be applied after the byte offset; can be negative.
    pub instruction_offset: i64,
    /// Number of instructions to disassemble starting at the specified location and offset.
    pub instruction_count: u64,
    /// If true, the adapter should attempt to resolve memory addresses and other values to
    /// symbolic names.
    pub resolve_symbols: bool,
}

/// DAP § Requests › Disassemble response body.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembleResponse {
    /// The list of disassembled instructions; not a list reads as empty.
    #[serde(default, deserialize_with = "lenient::items")]
    pub instructions: Vec<DisassembledInstruction>,
}

/// DAP § Types › DisassembledInstruction: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisassembledInstruction {
    /// The address of the instruction, treated as a hex value if prefixed with `0x`, or as a
    /// decimal value otherwise (lldb-dap 22 sends `-1` for an invalid one).
    #[serde(default, deserialize_with = "lenient::value")]
    pub address: Option<String>,
    /// Raw bytes representing the instruction and its operands, in an implementation-defined
    /// format.
    #[serde(default, deserialize_with = "lenient::value")]
    pub instruction_bytes: Option<String>,
    /// Text representing the instruction and its operands.
    #[serde(default, deserialize_with = "lenient::value")]
    pub instruction: Option<String>,
    /// Name of the symbol that corresponds with the location of this instruction, if any.
    #[serde(default, deserialize_with = "lenient::value")]
    pub symbol: Option<String>,
    /// Source location that corresponds to this instruction, if any (Delve sends `{}` for
    /// none).
    #[serde(default, deserialize_with = "lenient::record")]
    pub location: Option<InstructionSource>,
    /// The line within the source location that corresponds to this instruction, if any.
    #[serde(default, deserialize_with = "lenient::value")]
    pub line: Option<u64>,
    /// `normal` or `invalid` (lldb-dap 22 pads the part of a centred window it cannot
    /// disassemble backwards into with invalid entries at `-1`, though code is there).
    #[serde(default, deserialize_with = "lenient::value")]
    pub presentation_hint: Option<String>,
}

/// DAP § Types › Source as a disassembled instruction's `location`: the fields agentdap reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionSource {
    /// The short name of the source.
    #[serde(default, deserialize_with = "lenient::value")]
    pub name: Option<String>,
    /// The path of the source.
    #[serde(default, deserialize_with = "lenient::value")]
    pub path: Option<String>,
}

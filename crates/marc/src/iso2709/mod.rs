//! ISO 2709 ("binary MARC"): decoding one record strictly or leniently,
//! encoding, and reading and writing streams of records.

mod decode;
mod encode;
mod reader;

pub use self::decode::{decode, decode_lenient};
pub use self::encode::{Writer, encode, encode_into};
pub use self::reader::{LenientReader, Reader};

//! `serde` support (feature `serde`): a filter serializes as its portable bytes.

use crate::filter::BloomFilter;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

impl Serialize for BloomFilter {
    /// Serializes [`to_bytes`](BloomFilter::to_bytes) as a byte string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = BloomFilter;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the serialized bytes of an abloom filter")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<BloomFilter, E> {
        BloomFilter::from_bytes(v).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BloomFilter, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        self.visit_bytes(&bytes)
    }
}

impl<'de> Deserialize<'de> for BloomFilter {
    /// Deserializes the portable bytes, fully validated as [`BloomFilter::from_bytes`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BloomFilter, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor)
    }
}

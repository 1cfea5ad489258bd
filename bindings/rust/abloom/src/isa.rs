//! Which instruction-set kernel the C library's hot loops use.
//!
//! The library picks the best kernel the CPU supports at run time (on x86-64: scalar, AVX2 or
//! AVX-512; on aarch64: NEON, which every aarch64 CPU has); the environment variable `ABLOOM_ISA`
//! (`scalar`, `avx2`, `avx512`, `neon`, `auto`; read once, at first use) or [`force`] can ask for
//! less. Every kernel sets and tests the same bits, so this changes speed only, never answers or
//! files.
//!
//! ```
//! use abloom::isa::{self, Isa};
//!
//! let best = isa::supported();
//! isa::force(Isa::Scalar)?;
//! assert_eq!(isa::active(), Isa::Scalar);
//! isa::force(best)?;
//! # Ok::<(), abloom::Error>(())
//! ```

use crate::error::{check, Error};
use abloom_sys as sys;

/// A kernel of the C library. Each architecture runs its own kernels only, so the derived order
/// (declaration order) is not one of capability: `Neon > Avx512` means nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Portable scalar code: every CPU.
    Scalar,
    /// AVX2 with BMI2 (x86-64).
    Avx2,
    /// AVX-512 F and CD (x86-64).
    Avx512,
    /// NEON (Advanced SIMD): every aarch64 CPU, never x86-64.
    Neon,
}

impl Isa {
    fn from_raw(raw: u32) -> Isa {
        match raw {
            sys::ABLOOM_ISA_AVX2 => Isa::Avx2,
            sys::ABLOOM_ISA_AVX512 => Isa::Avx512,
            sys::ABLOOM_ISA_NEON => Isa::Neon,
            _ => Isa::Scalar,
        }
    }

    fn raw(self) -> u32 {
        match self {
            Isa::Scalar => sys::ABLOOM_ISA_SCALAR,
            Isa::Avx2 => sys::ABLOOM_ISA_AVX2,
            Isa::Avx512 => sys::ABLOOM_ISA_AVX512,
            Isa::Neon => sys::ABLOOM_ISA_NEON,
        }
    }

    /// The library's name for it: `"scalar"`, `"avx2"`, `"avx512"` or `"neon"`.
    pub fn name(self) -> &'static str {
        // SAFETY: abloom_isa_name returns a static NUL-terminated string for any value.
        let s = unsafe { std::ffi::CStr::from_ptr(sys::abloom_isa_name(self.raw())) };
        s.to_str().unwrap_or("unknown")
    }
}

/// The best kernel this CPU can run.
pub fn supported() -> Isa {
    // SAFETY: no arguments, no preconditions.
    Isa::from_raw(unsafe { sys::abloom_isa_supported() })
}

/// The kernel in use now (process-wide).
pub fn active() -> Isa {
    // SAFETY: no arguments, no preconditions.
    Isa::from_raw(unsafe { sys::abloom_get_isa() })
}

/// Uses `isa` from now on, process-wide; [`Error::Unsupported`] when this CPU cannot run it
/// (nothing changes then).
pub fn force(isa: Isa) -> Result<(), Error> {
    // SAFETY: any value is accepted; unknown ones are refused with an error code.
    check(unsafe { sys::abloom_set_isa(isa.raw()) }).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_scalar_then_back() {
        let before = active();
        let best = supported();
        if cfg!(target_arch = "aarch64") {
            assert_eq!(best, Isa::Neon, "every aarch64 CPU has NEON");
        } else {
            assert_ne!(best, Isa::Neon);
        }
        force(Isa::Scalar).unwrap();
        assert_eq!(active(), Isa::Scalar);
        for isa in [Isa::Avx2, Isa::Avx512, Isa::Neon] {
            // Scalar and the CPU's own kernels up to its best (an AVX-512 CPU has AVX2) run; the
            // other architecture's never.
            let runs = isa == best || (isa == Isa::Avx2 && best == Isa::Avx512);
            if !runs {
                assert!(matches!(force(isa), Err(Error::Unsupported)), "{isa:?}");
            }
        }
        assert_eq!(active(), Isa::Scalar, "a refused force changes nothing");
        force(best).unwrap();
        assert_eq!(active(), best);
        force(before).unwrap();
        assert_eq!(Isa::Avx2.name(), "avx2");
        assert_eq!(Isa::Avx512.name(), "avx512");
        assert_eq!(Isa::Neon.name(), "neon");
        assert_eq!(Isa::Scalar.name(), "scalar");
    }
}

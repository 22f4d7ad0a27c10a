//! Independent reference implementations used as test oracles for the cipher library.

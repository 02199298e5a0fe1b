//! Integration tests of idlc. The library part will hold code generated from `schemas/`.

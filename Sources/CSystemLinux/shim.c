// The C target needs a source file; everything is inline in the header.

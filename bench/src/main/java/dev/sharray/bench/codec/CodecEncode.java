package dev.sharray.bench.codec;

/** sharray side: RS Encode in place on SharedArray stripes with the row's backend (NATIVE or JAVA). */
public final class CodecEncode extends CodecWorkload {
    /** Used by the harness. */
    public CodecEncode() {
        super(null, false);
    }
}

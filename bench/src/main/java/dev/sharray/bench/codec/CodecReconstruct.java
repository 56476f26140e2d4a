package dev.sharray.bench.codec;

/** sharray side: RS Reconstruct in place on SharedArray stripes with the row's backend (NATIVE or JAVA). */
public final class CodecReconstruct extends CodecWorkload {
    /** Used by the harness. */
    public CodecReconstruct() {
        super(null, true);
    }
}

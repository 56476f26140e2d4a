package dev.sharray.codec;

/** The instruction set a codec's kernels run with. */
public enum SimdLevel {
    /** Portable C, one byte at a time. */
    SCALAR,
    /** 128-bit {@code pshufb} nibble tables. */
    SSSE3,
    /** 256-bit {@code vpshufb} nibble tables. */
    AVX2,
    /** 256-bit {@code vgf2p8affineqb} (one 8x8 bit matrix per coefficient). */
    AVX2_GFNI,
    /** 512-bit {@code vgf2p8affineqb} with masked tails. */
    AVX512_GFNI,
    /** The Java Vector API at the JVM's preferred vector width. */
    VECTOR_API,
    /**
     * Plain Java, one byte at a time through 256-entry product tables: the {@code JAVA} backend in a JVM without
     * {@code jdk.incubator.vector}. Not {@link #SCALAR}, which is a level of the native kernels that
     * {@code Builder.simdLevel} accepts.
     */
    JAVA_SCALAR,
    /** Whatever ISA-L's own runtime dispatch picked. */
    ISAL_DISPATCH;

    /** The C side's numbering for the native levels (see sharraycodec.c), or -1. */
    int nativeCode() {
        return ordinal() <= AVX512_GFNI.ordinal() ? ordinal() : -1;
    }

    static SimdLevel ofNativeCode(int code) {
        return values()[code];
    }
}

package dev.sharray.codec;

/** Which implementation computes the codes. All produce byte-identical output. */
public enum Backend {
    /** {@link #NATIVE} when its library loads, otherwise {@link #JAVA} (never ISA-L). */
    AUTO,
    /** sharray's own C kernels (bundled in the jar) with runtime CPU dispatch. */
    NATIVE,
    /** Intel ISA-L ({@code libisal.so.2}) through JNA; must be installed on the machine. */
    ISAL,
    /** Pure Java with the Vector API ({@code jdk.incubator.vector}). */
    JAVA
}

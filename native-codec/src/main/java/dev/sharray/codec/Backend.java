package dev.sharray.codec;

/** Which implementation computes the codes. All produce byte-identical output. */
public enum Backend {
    /** {@link #NATIVE} when its library loads, otherwise {@link #JAVA} (never ISA-L). */
    AUTO,
    /** sharray's own C kernels (bundled in the jar) with runtime CPU dispatch. */
    NATIVE,
    /** Intel ISA-L ({@code libisal.so.2}) through JNA; must be installed on the machine. */
    ISAL,
    /**
     * Pure Java: the Vector API ({@link SimdLevel#VECTOR_API}) where the JVM has {@code jdk.incubator.vector}
     * ({@code --add-modules=jdk.incubator.vector}), else byte-at-a-time product tables
     * ({@link SimdLevel#JAVA_SCALAR}), several times slower; a WARN line says so once per JVM.
     */
    JAVA
}

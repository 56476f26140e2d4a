package dev.sharray.cli;

/** What a command's parallel tasks spend their time in: it decides how worker JVMs are started. */
public enum Workload {
    /** Hot loops in Java (the demo's map and reduction): workers get the full tiered JIT. */
    JAVA_LOOPS,
    /**
     * Hot loops in native code (the erasure codec, checksums, kernel copies): the Java code only
     * orchestrates, so workers run with C1 alone, which saves each short-lived worker the C2 compile work
     * (measured ~0.3 s of CPU per worker JVM, on 2 cores the same order as the coding itself).
     */
    NATIVE_LOOPS
}

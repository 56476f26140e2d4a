package dev.sharray.codec;

import dev.sharray.Loggers;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/** Turns a requested backend (and optional SIMD cap) into a working engine. */
final class Engines {
    private static final String VECTOR_FLAG = "--add-modules=jdk.incubator.vector";
    /**
     * Whether this code reads the Vector API's module, so that VectorEngine links: a look-up in the boot layer,
     * which loads none of the module's classes (the pool's workers may run without it: the flag costs every JVM
     * start-up time, as it switches off the JDK's archived module graph).
     */
    private static final boolean VECTOR_API = ModuleLayer.boot().findModule("jdk.incubator.vector")
        .map(Engines.class.getModule()::canRead).orElse(false);
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();
    /** Set once a line said that the JAVA backend runs scalar here, and how to get the vector speed. */
    private static final AtomicBoolean SCALAR_LOGGED = new AtomicBoolean();

    private Engines() {
    }

    static Engine select(Backend requested, SimdLevel cap) {
        switch (requested) {
            case NATIVE:
                if (!NativeLib.available()) {
                    throw new IllegalStateException("native codec library unavailable: " + NativeLib.failure());
                }
                return nativeEngine(cap);
            case ISAL:
                if (!IsalLib.available()) {
                    throw new IllegalStateException("ISA-L (libisal.so.2) unavailable: " + IsalLib.failure());
                }
                if (!NativeLib.available()) { // its calls run under our library's SIGBUS guard
                    throw new IllegalStateException("the ISAL backend needs the native codec library, unavailable: "
                        + NativeLib.failure());
                }
                return new IsalEngine();
            case JAVA:
                if (!VECTOR_API && SCALAR_LOGGED.compareAndSet(false, true)) {
                    Fallback.LOG.warn("sharray codec: the JAVA backend runs its scalar engine (JAVA_SCALAR): this JVM"
                        + " lacks jdk.incubator.vector; start it with {} for the Vector API's speed", VECTOR_FLAG);
                }
                return javaEngine();
            default:
                if (NativeLib.available()) {
                    return nativeEngine(cap);
                }
                if (cap != null) {
                    // the builder promised: an explicit SIMD level fails rather than silently meaning nothing
                    throw new IllegalStateException("SIMD level " + cap + " was requested but the native library is"
                        + " unavailable: " + NativeLib.failure());
                }
                final Engine java = javaEngine();
                if (FALLBACK_LOGGED.compareAndSet(false, true)) { // logged only once the fallback really runs
                    if (VECTOR_API) {
                        Fallback.LOG.warn("sharray codec: native library unavailable ({}); using the Java Vector API "
                            + "backend", NativeLib.failure());
                    } else {
                        SCALAR_LOGGED.set(true); // this line already says how to get the vector speed
                        Fallback.LOG.warn("sharray codec: native library unavailable ({}); using the scalar Java"
                            + " backend (JAVA_SCALAR): this JVM lacks jdk.incubator.vector; start it with {} for the"
                            + " Vector API's speed", NativeLib.failure(), VECTOR_FLAG);
                    }
                }
                return java;
        }
    }

    private static Engine nativeEngine(SimdLevel cap) {
        SimdLevel max = NativeEngine.maxLevel();
        if (cap == null) {
            return new NativeEngine(max);
        }
        if (cap.nativeCode() < 0 || cap.nativeCode() > max.nativeCode()) {
            throw new IllegalArgumentException("SIMD level " + cap + " is not available to the native backend"
                + " on this CPU (best: " + max + ")");
        }
        return new NativeEngine(cap);
    }

    /** The JAVA backend's engine: the Vector API's where this JVM has that module, else the scalar one. */
    private static Engine javaEngine() {
        return VECTOR_API ? new VectorEngine() : new ScalarEngine();
    }

    /** Created only when the fallback is logged: SLF4J's start-up costs ~10-15 ms a coding JVM need not pay. */
    private static final class Fallback {
        static final Logger LOG = Loggers.get(ErasureCodec.class.getName());
    }
}

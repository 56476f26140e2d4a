package dev.sharray.codec;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns a requested backend (and optional SIMD cap) into a working engine. */
final class Engines {
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

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
                return vectorEngine();
            default:
                if (NativeLib.available()) {
                    return nativeEngine(cap);
                }
                if (cap != null) {
                    // the builder promised: an explicit SIMD level fails rather than silently meaning nothing
                    throw new IllegalStateException("SIMD level " + cap + " was requested but the native library is"
                        + " unavailable: " + NativeLib.failure());
                }
                final Engine java;
                try {
                    java = vectorEngine();
                } catch (IllegalStateException e) {
                    // Neither backend runs: say why for both. Before, the WARN below announced the Java backend and
                    // then this threw about the Vector API alone, hiding why the native library did not load.
                    throw new IllegalStateException("no codec backend is available here: the native library is "
                        + "unavailable (" + NativeLib.failure() + "), and " + e.getMessage(), e);
                }
                if (FALLBACK_LOGGED.compareAndSet(false, true)) { // logged only once the fallback really runs
                    Fallback.LOG.warn("sharray codec: native library unavailable ({}); using the Java Vector API backend",
                        NativeLib.failure());
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

    private static Engine vectorEngine() {
        try {
            return new VectorEngine();
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("the JAVA backend needs --add-modules=jdk.incubator.vector", e);
        }
    }

    /** Created only when the fallback is logged: SLF4J's start-up costs ~10-15 ms a coding JVM need not pay. */
    private static final class Fallback {
        static final Logger LOG = LoggerFactory.getLogger(ErasureCodec.class);
    }
}

package dev.sharray.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** Whether the current thread is virtual ({@code Thread.isVirtual}, JDK 21+; never on older JDKs). */
final class VirtualThreads {
    private static final MethodHandle IS_VIRTUAL = find();

    private VirtualThreads() {
    }

    static boolean isCurrent() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable t) {
            throw new AssertionError(t); // Thread.isVirtual throws nothing
        }
    }

    /** @return whether this JDK has virtual threads (for tests) */
    static boolean supported() {
        return IS_VIRTUAL != null;
    }

    private static MethodHandle find() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null; // before JDK 21
        }
    }
}

package dev.sharray.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The JDK's internal NIO access ({@code jdk.internal.access.JavaNioAccess}), which its own channels use to read a
 * buffer's address and to hold a memory segment's arena open during native I/O. Reachable when the project's JVM
 * flags export {@code jdk.internal.access} (and {@code jdk.internal.misc} for JDK 17's scope handles); every
 * method here answers {@code null} otherwise.
 */
final class JdkNioAccess {
    private static final Class<?> TYPE;
    private static final Object INSTANCE;

    static {
        Class<?> type = null;
        Object instance = null;
        try {
            type = Class.forName("jdk.internal.access.JavaNioAccess");
            instance = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaNioAccess").invoke(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            type = null; // not exported to us (an IllegalAccessException), or a JDK without it
            instance = null;
        }
        TYPE = type;
        INSTANCE = instance;
    }

    private JdkNioAccess() {
    }

    /**
     * @param name      the method's name
     * @param type      its type, without the receiver
     * @param usedAs    the type the caller invokes it with ({@code invokeExact})
     * @return the method bound to the JDK's instance, or {@code null} when the access or the method is missing
     */
    static MethodHandle find(String name, MethodType type, MethodType usedAs) {
        if (INSTANCE == null) {
            return null;
        }
        try {
            return MethodHandles.lookup().findVirtual(TYPE, name, type).bindTo(INSTANCE).asType(usedAs);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @param owner  a JDK-internal type whose package the project's JVM flags export to us
     * @param name   the method's name
     * @param type   its type, without the receiver
     * @param usedAs the type the caller invokes it with ({@code invokeExact}), the receiver first
     * @return the virtual method, or {@code null} when it is missing or not exported to us
     */
    static MethodHandle findInternal(Class<?> owner, String name, MethodType type, MethodType usedAs) {
        try {
            return MethodHandles.lookup().findVirtual(owner, name, type).asType(usedAs);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}

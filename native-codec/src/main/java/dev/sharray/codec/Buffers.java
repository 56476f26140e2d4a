package dev.sharray.codec;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/** Native addresses of direct ByteBuffers, without allocating when the JDK lets us. */
final class Buffers {
    /**
     * The JDK's own reading of a buffer's address field ({@code JavaNioAccess.getBufferAddress}), which answers
     * for every direct buffer: null without the project's JVM flags.
     */
    private static final MethodHandle RAW_ADDRESS = findRawAddress();
    /**
     * sun.nio.ch.DirectBuffer#address, reachable because the project's JVM flags export sun.nio.ch;
     * null without that flag, and then JNA (which allocates a Pointer per call) answers instead. It throws
     * for a buffer of a shared arena (JDK 21+), hence {@link #RAW_ADDRESS} first.
     */
    private static final MethodHandle ADDRESS = find();

    private Buffers() {
    }

    private static MethodHandle findRawAddress() {
        final MethodType usedAs = MethodType.methodType(long.class, ByteBuffer.class);
        final MethodHandle h = JdkNioAccess.find("getBufferAddress", MethodType.methodType(long.class, Buffer.class), usedAs);
        return h != null ? h : JdkNioAccess.find("getBufferAddress", usedAs, usedAs); // JDK 17 takes a ByteBuffer
    }

    private static MethodHandle find() {
        try {
            Class<?> c = Class.forName("sun.nio.ch.DirectBuffer");
            // lookup(), not publicLookup(): a public lookup only sees unconditionally exported packages, and
            // the flag exports sun.nio.ch to the unnamed module only
            MethodHandle h = MethodHandles.lookup().findVirtual(c, "address", MethodType.methodType(long.class));
            return h.asType(MethodType.methodType(long.class, ByteBuffer.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** @return whether addresses come from the JDK's own accessors (no allocation), not from JNA */
    static boolean allocationFree() {
        return RAW_ADDRESS != null || ADDRESS != null;
    }

    /** Address of the buffer's position; the buffer must be direct (checked by the caller). */
    static long address(ByteBuffer b) {
        return base(b) + b.position();
    }

    /** Address of the buffer's first byte (index 0, not its position); the buffer must be direct. */
    static long base(ByteBuffer b) {
        if (RAW_ADDRESS != null) {
            try {
                return (long) RAW_ADDRESS.invokeExact(b);
            } catch (Throwable t) {
                // Fall through: the handle only fails if the JDK changes underneath us.
            }
        }
        if (ADDRESS != null) {
            try {
                return (long) ADDRESS.invokeExact(b);
            } catch (Throwable t) {
                // Fall through to JNA: the handle only fails if the JDK changes underneath us.
            }
        }
        return Pointer.nativeValue(Native.getDirectBufferPointer(b));
    }
}

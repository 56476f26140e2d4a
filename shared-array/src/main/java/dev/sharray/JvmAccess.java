package dev.sharray;

/**
 * Refuses a JVM started without the project's flags ({@code config/jvm.flags}) with a message that says what to
 * do. Without {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED}, Agrona's first use failed deep inside
 * with {@code IllegalAccessError: class org.agrona.UnsafeApi ... cannot access class jdk.internal.misc.Unsafe},
 * and every later use with {@code NoClassDefFoundError}: nothing named the flags, and no page told a user that
 * their own JVM needs them.
 */
final class JvmAccess {
    /** The export Agrona needs; a class literal loads BufferUtil without running its static initializer. */
    private static final boolean UNSAFE_EXPORTED = Object.class.getModule().isExported("jdk.internal.misc",
        org.agrona.BufferUtil.class.getModule());

    private JvmAccess() {
    }

    /**
     * Called before anything that maps memory or makes a file.
     *
     * @throws IllegalStateException when this JVM lacks the export Agrona needs
     */
    static void requireFlags() {
        if (!UNSAFE_EXPORTED) {
            throw new IllegalStateException("this JVM was started without sharray's JVM flags (config/jvm.flags):"
                + " it lacks --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED. Start it with them all, e.g."
                + " java @sharray.args -cp ..., the argfile written for the running JDK by"
                + " java -cp <sharray-shared-array jar> dev.sharray.JvmFlags > sharray.args (in a checkout the build"
                + " writes shared-array/target/jvm.args); a JVM you launch yourself gets them from"
                + " JvmFlags.forCurrentJvm()");
        }
    }
}

package dev.sharray;

/**
 * A child JVM for {@link ExitingJvmTest}: prints whether the JVM is exiting, then, in a shutdown hook, again, and
 * tries to make its first array over Chronicle Bytes there.
 */
public final class ExitingJvmChild {
    private ExitingJvmChild() {
    }

    /** @param args nothing, or "afterAnArray": an array (over Agrona) made and released first, so sharray's hook is in */
    public static void main(String[] args) {
        if (args.length > 0) {
            SharedArray.builder(DType.INT8, 16).backing(Backing.AGRONA).create().release();
        }
        System.out.println("running: exiting " + SharedArrays.jvmExiting());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("in a hook: exiting " + SharedArrays.jvmExiting());
            try (SharedArray a = SharedArray.builder(DType.INT8, 16).backing(Backing.MAPPED_FILE).create()) {
                System.out.println("created " + a.size());
            } catch (IllegalStateException e) {
                System.out.println("refused: " + e.getMessage());
            }
            System.out.flush();
        }));
    }
}

package dev.sharray;

/**
 * A child JVM for {@link ExitingJvmTest}: one thread makes the first Chronicle Bytes array of this JVM while the main
 * thread, as soon as it sees that thread inside Chronicle's mapping (whose first set-up takes a few hundred
 * milliseconds), begins the JVM's exit, as a Ctrl-C would.
 */
public final class ExitDuringChronicleStartChild {
    private ExitDuringChronicleStartChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        SharedArray.builder(DType.INT8, 16).backing(Backing.AGRONA).create().release(); // sharray's own set-up done
        final Thread creator = new Thread(() -> {
            try (SharedArray a = SharedArray.builder(DType.INT8, 16).backing(Backing.MAPPED_FILE).create()) {
                System.out.println("created " + a.size());
            } catch (IllegalStateException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }, "creator");
        creator.start();
        while (creator.isAlive()) {
            for (StackTraceElement frame : creator.getStackTrace()) {
                if (frame.getClassName().equals("net.openhft.chronicle.bytes.MappedFile")) { // past sharray's checks
                    System.out.println("exit while the creator is in " + frame.getClassName() + "." + frame.getMethodName());
                    System.exit(0);
                }
            }
        }
        System.out.println("the creator never was seen in Chronicle's mapping");
    }
}

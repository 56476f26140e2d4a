package dev.sharray;

/**
 * A child JVM for {@link ExitDuringCreateTest}: creates an 8 MiB array while another thread exits the JVM, the exit
 * hook beginning after the create made its files and before it registers them ({@link Segments#beforeRegister}).
 * With {@code "refused"} the create goes on once the hook has begun, prints {@code "refused "} and the message it
 * got, or {@code "created "} and the array's path; with {@code "stuck"} it never ends, as a create still
 * preallocating when the hooks end. Prints {@code "folder "} and its own folder first.
 */
public final class CreateAtExit {
    private CreateAtExit() {
    }

    public static void main(String[] args) throws Exception {
        final boolean stuck = args[0].equals("stuck");
        System.out.println("folder " + SharedArrays.processFolder());
        System.out.flush();
        // The refused create's message is printed by this thread after its rollback ended the create, which is what the
        // exit hook waits for; the JVM halts once the hooks end. Without this hook's wait the message was lost when the
        // exit hook finished first (a loaded machine: the test failed with no "refused" line). It waits for the message
        // only, not for anything sharray's hook does.
        final java.util.concurrent.CountDownLatch said = new java.util.concurrent.CountDownLatch(1);
        if (!stuck) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    said.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "create-at-exit-said"));
        }
        Segments.beforeRegister = () -> {
            Segments.beforeRegister = null;
            new Thread(() -> System.exit(0), "exiter").start();
            while (!Segments.exiting() || stuck) {
                Thread.onSpinWait();
            }
        };
        try {
            final SharedArray a = SharedArray.create(DType.FLOAT64, 1 << 20);
            System.out.println("created " + a.path());
        } catch (IllegalStateException e) {
            System.out.println("refused " + e.getMessage());
        }
        System.out.flush();
        said.countDown();
        Thread.sleep(60_000); // the exit halts this JVM
    }
}

package dev.sharray.cli;

/**
 * A child JVM for {@link ExitQuietTest}: runs a command that fails (decoding a folder that is not there) once while
 * running, once in a shutdown hook, as work a Ctrl-C stops fails on its way out.
 */
public final class ExitingCliChild {
    private ExitingCliChild() {
    }

    /** @param args the folder to decode */
    public static void main(String[] args) {
        System.err.println("running: code " + Main.run("ec", "decode", args[0], "-o", args[0] + ".out"));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("in a hook: code " + Main.run("ec", "decode", args[0], "-o", args[0] + ".out"));
        }));
    }
}

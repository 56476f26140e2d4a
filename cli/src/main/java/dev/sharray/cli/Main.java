package dev.sharray.cli;

/** Entry point of the {@code sharray} command. */
public final class Main {
    private Main() {
    }

    /**
     * Runs the command line.
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        System.out.println("sharray: not yet - the demo arrives with the CLI issue.");
    }
}

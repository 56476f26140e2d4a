package dev.sharray.codec;

/** Thrown when fewer shards survive than the data shard count, so the stripe cannot be rebuilt. */
public final class TooFewShardsException extends IllegalArgumentException {
    /** Serial form version. */
    private static final long serialVersionUID = 1L;

    /** How many shards were marked present. */
    private final int present;
    /** How many are needed: the data shard count. */
    private final int required;

    /**
     * @param present  how many shards are marked present
     * @param required how many are needed (the data shard count)
     */
    public TooFewShardsException(int present, int required) {
        super("too few shards to reconstruct: " + present + " present, " + required + " required");
        this.present = present;
        this.required = required;
    }

    /** @return how many shards were marked present */
    public int present() {
        return present;
    }

    /** @return how many shards are required (the data shard count) */
    public int required() {
        return required;
    }
}

package dev.sharray;

/**
 * This process has nearly as many memory mappings as the kernel allows ({@code vm.max_map_count}): a new array
 * (create or open) is refused before anything is made, leaving the JVM the mappings it needs to go on. Releasing
 * arrays makes room again.
 */
public final class MapLimitException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message what could not be mapped, and the counts */
    public MapLimitException(String message) {
        super(message);
    }
}

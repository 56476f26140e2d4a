package dev.sharray;

/** How an array's file is mapped into this process. Both write the same {@code .npy} file format. */
public enum Backing {
    /** Chronicle Bytes single mapping: any size, including more than 2 GiB. */
    MAPPED_FILE,
    /** Agrona buffer over a mapped file (typically on tmpfs): at most 2 GiB, cheaper to load. */
    AGRONA
}

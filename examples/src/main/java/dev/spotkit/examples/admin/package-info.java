/**
 * {@code spotkit-admin}: an operator's command line for a mesh on a Redis Location Store (issue 15): {@code nodes},
 * {@code objects}, {@code relocations} and {@code drain}, each a picocli subcommand printing a table or, with
 * {@code --json}, one JSON document. Exit codes: 0 ok, 1 the operation failed, 2 bad usage, 3 the store is
 * unreachable or did not answer within {@code --timeout}. It reads the store through
 * {@link dev.spotkit.core.MeshAdmin}; it is no MeshNode and needs no cluster secret.
 */
package dev.spotkit.examples.admin;

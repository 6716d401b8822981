/**
 * Lock-free mailboxes on Agrona queues and their dispatch on virtual threads (DESIGN.md "Execution model"). Only
 * toolkit-core builds on it, so the one package is exported to core alone.
 */
module dev.spotkit.mailbox {
  requires org.agrona;

  exports dev.spotkit.mailbox to dev.spotkit.core;
}

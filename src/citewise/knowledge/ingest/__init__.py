"""Writing documents: chunking (:mod:`.chunking`), which files an ingest reads
(:mod:`.files`), the pipeline from files to stored chunks (:mod:`.pipeline`, reporting in
:mod:`.report`), the outbox that brings derived indexes in step after every write and
every crash (:mod:`.outbox`), and the writer locks that tell another process's ingest in
progress from a crash's leftovers (:mod:`.writer_lock` for a folder,
:mod:`.writer_lock_postgres` for a shared database)."""

-- A request is recorded when it goes to the model (outcome `in_flight`) and
-- the row is replaced when it ends. A row still in flight whose writer process
-- is gone was cut off (SIGKILL, a crash, power loss): the next open marks it
-- `interrupted`. writer_pid says which process wrote the row.

ALTER TABLE snapshots ADD COLUMN writer_pid INTEGER;

CREATE INDEX snapshots_in_flight ON snapshots (writer_pid) WHERE outcome = 'in_flight';

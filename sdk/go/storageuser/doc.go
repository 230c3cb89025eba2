// StorageUser creates an object-storage user and hands its Swift, S3 and FTP credentials over as secret outputs.
package storageuser

import { describe, expect, test } from 'bun:test';
import { join, resolve } from 'node:path';
import { parseBlobStoreUrl, validateBlobKey, validateBlobPrefix } from '../../../src/server/storage/index.ts';

const dataDir = '/srv/cartridge';
const keys = { S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'sk' };

describe('parseBlobStoreUrl', () => {
  test('file: forms', () => {
    expect(parseBlobStoreUrl('file:', { dataDir })).toEqual({ kind: 'file', root: join(dataDir, 'blobs') });
    expect(parseBlobStoreUrl('file:/var/blobs', { dataDir })).toEqual({ kind: 'file', root: '/var/blobs' });
    expect(parseBlobStoreUrl('file:///var/blobs', { dataDir })).toEqual({ kind: 'file', root: '/var/blobs' });
    expect(parseBlobStoreUrl('file:blobs', { dataDir })).toEqual({ kind: 'file', root: resolve('blobs') });
  });

  test('s3:// with defaults', () => {
    expect(parseBlobStoreUrl('s3://my-bucket', { dataDir, env: { S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'sk' } })).toEqual({
      kind: 's3',
      bucket: 'my-bucket',
      prefix: '',
      endpoint: undefined,
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'sk',
      sessionToken: undefined,
      virtualHostedStyle: false,
    });
  });

  test('AWS_* variables stand in for unset S3_* ones', () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'aws-id',
      AWS_SECRET_ACCESS_KEY: 'aws-sk',
      AWS_REGION: 'ap-south-1',
      AWS_SESSION_TOKEN: 'aws-token',
      S3_SECRET_ACCESS_KEY: 's3-sk',
    };
    expect(parseBlobStoreUrl('s3://my-bucket', { dataDir, env })).toMatchObject({
      accessKeyId: 'aws-id',
      secretAccessKey: 's3-sk',
      region: 'ap-south-1',
      sessionToken: 'aws-token',
    });
  });

  test('s3:// with a prefix and every S3_* variable', () => {
    const env = {
      S3_ENDPOINT: 'https://minio.internal:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_SESSION_TOKEN: 'token',
      S3_VIRTUAL_HOSTED_STYLE: 'TRUE',
    };
    expect(parseBlobStoreUrl('s3://bucket.with.dots/studio/blobs/', { dataDir, env })).toEqual({
      kind: 's3',
      bucket: 'bucket.with.dots',
      prefix: 'studio/blobs/',
      endpoint: 'https://minio.internal:9000',
      region: 'eu-central-1',
      accessKeyId: 'AKIA',
      secretAccessKey: 'secret',
      sessionToken: 'token',
      virtualHostedStyle: true,
    });
  });

  test('empty variables count as unset; false-ish values are false', () => {
    const location = parseBlobStoreUrl('s3://bucket', {
      dataDir,
      env: { ...keys, S3_REGION: '', S3_ENDPOINT: ' ', S3_VIRTUAL_HOSTED_STYLE: '0' },
    });
    expect(location).toMatchObject({ region: 'us-east-1', endpoint: undefined, virtualHostedStyle: false });
  });

  test('mistakes name the variable at fault', () => {
    const parse = (url: string, env: Record<string, string> = keys) => () => parseBlobStoreUrl(url, { dataDir, env });
    expect(parse('s3://')).toThrow('STORAGE_URL');
    expect(parse('s3://Upper_Case')).toThrow('bad bucket name');
    expect(parse('s3://ok-bucket/has space')).toThrow('key prefix');
    expect(parse('s3://ok-bucket/../up')).toThrow('key prefix');
    expect(parse(`s3://ok-bucket/${'p'.repeat(64)}`)).toThrow('63 characters');
    expect(parse('s3://ok-bucket', { ...keys, S3_ENDPOINT: 'minio:9000' })).toThrow('S3_ENDPOINT');
    expect(parse('s3://ok-bucket', { ...keys, S3_VIRTUAL_HOSTED_STYLE: 'maybe' })).toThrow('S3_VIRTUAL_HOSTED_STYLE');
    expect(parse('s3://ok-bucket', {})).toThrow('S3_ACCESS_KEY_ID');
    expect(parse('s3://ok-bucket', { S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: ' ' })).toThrow('S3_SECRET_ACCESS_KEY');
    expect(parse('http://example.com/blobs')).toThrow('STORAGE_URL');
    expect(parse('file://nas/share')).toThrow('STORAGE_URL');
  });
});

describe('key and prefix rules', () => {
  test('content-addressed and nested keys are valid', () => {
    const sha = 'a'.repeat(64);
    for (const key of [`chunks/${sha.slice(0, 2)}/${sha}`, 'uploads/pk_1/part-00001', 'img/x.webp', 'a', 'x..y']) {
      expect(validateBlobKey(key)).toBe(key);
    }
  });

  test('prefixes may be empty, partial or end in a slash', () => {
    for (const prefix of ['', 'chunks/', 'chunks/a', 'c', 'uploads/pk_1/']) {
      expect(validateBlobPrefix(prefix)).toBe(prefix);
    }
    for (const prefix of ['/', '//', 'a//b', '.', 'a/..', 'a/./b', 'ü']) {
      expect(() => validateBlobPrefix(prefix)).toThrow('Invalid `prefix`');
    }
  });
});

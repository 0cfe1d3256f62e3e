/**
 * Global provider specifications the platform ships (organization_id null).
 * Frozen data of migration 1763710000004: later changes need a new migration.
 * Settings schemas use the custom keywords `tag` (the value becomes a tag),
 * `secret` (never revealed) and `groups` (form sections).
 */
export interface ProviderSeed {
  slug: string;
  name: string;
  description: string;
  category: string;
  allowDimensions: boolean;
  schema: Record<string, unknown>;
}

const str = (title: string, extra: Record<string, unknown> = {}) => ({ type: 'string', title, minLength: 1, ...extra });

const OCID = '^ocid1\\.[a-z0-9]+\\.[a-z0-9-]*\\.[a-z0-9-]*\\.[a-z0-9]+$';
const OCI_REGION = '^[a-z]{2}-[a-z]+-[0-9]$';

const ociCredentials = {
  tenancy_ocid: str('Tenancy OCID', { pattern: OCID, tag: true }),
  user_ocid: str('User OCID', { pattern: OCID }),
  fingerprint: str('API key fingerprint', { pattern: '^([0-9a-f]{2}:){15}[0-9a-f]{2}$' }),
  private_key: str('API private key (PEM)', { secret: true, maxLength: 8192 }),
  private_key_passphrase: { type: 'string', title: 'Private key passphrase', secret: true },
  region: str('Home region', { pattern: OCI_REGION, tag: true, examples: ['us-ashburn-1', 'eu-frankfurt-1'] }),
  compartment_ocid: str('Compartment OCID', { pattern: OCID, tag: true }),
};

export const PROVIDER_SEEDS: ProviderSeed[] = [
  {
    slug: 'oracle-cloud-infrastructure',
    name: 'Oracle Cloud Infrastructure',
    description: 'Credentials and placement for Oracle Cloud Infrastructure (OCI) accounts.',
    category: 'cloud-providers',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['tenancy_ocid', 'user_ocid', 'fingerprint', 'private_key', 'region', 'compartment_ocid'],
      additionalProperties: false,
      groups: [
        { name: 'identity', title: 'Identity', properties: ['tenancy_ocid', 'user_ocid', 'fingerprint', 'private_key', 'private_key_passphrase'] },
        { name: 'placement', title: 'Placement', properties: ['region', 'compartment_ocid', 'networking'] },
      ],
      properties: {
        ...ociCredentials,
        networking: {
          type: 'object',
          title: 'Networking',
          additionalProperties: false,
          properties: {
            vcn_ocid: str('VCN OCID', { pattern: OCID }),
            subnet_ocids: { type: 'array', title: 'Subnet OCIDs', items: { type: 'string', pattern: OCID }, uniqueItems: true },
          },
        },
      },
    },
  },
  {
    slug: 'oracle-kubernetes-engine',
    name: 'Oracle Kubernetes Engine',
    description: 'An OKE cluster on Oracle Cloud Infrastructure, used as a container orchestrator.',
    category: 'container-orchestration',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['tenancy_ocid', 'user_ocid', 'fingerprint', 'private_key', 'region', 'compartment_ocid', 'cluster_ocid'],
      additionalProperties: false,
      groups: [
        { name: 'identity', title: 'Identity', properties: ['tenancy_ocid', 'user_ocid', 'fingerprint', 'private_key', 'private_key_passphrase'] },
        { name: 'cluster', title: 'Cluster', properties: ['region', 'compartment_ocid', 'cluster_ocid', 'cluster_name', 'kubernetes_version', 'namespace', 'node_pool_ocids'] },
        { name: 'endpoint', title: 'API endpoint', properties: ['endpoint_type', 'api_server_ca'] },
      ],
      properties: {
        ...ociCredentials,
        cluster_ocid: str('Cluster OCID', { pattern: OCID, tag: true }),
        cluster_name: str('Cluster name', { maxLength: 255, tag: true }),
        kubernetes_version: str('Kubernetes version', { pattern: '^v[0-9]+\\.[0-9]+\\.[0-9]+$' }),
        namespace: str('Default namespace', { pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63, default: 'nullplatform' }),
        node_pool_ocids: { type: 'array', title: 'Node pool OCIDs', items: { type: 'string', pattern: OCID }, uniqueItems: true },
        endpoint_type: { type: 'string', title: 'Endpoint', enum: ['public', 'private'], default: 'private' },
        api_server_ca: { type: 'string', title: 'API server CA certificate (PEM)', maxLength: 16384 },
      },
    },
  },
  {
    slug: 'amazon-web-services',
    name: 'Amazon Web Services',
    description: 'Credentials and placement for AWS accounts.',
    category: 'cloud-providers',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['account_id', 'region', 'role_arn'],
      additionalProperties: false,
      groups: [{ name: 'account', title: 'Account', properties: ['account_id', 'region', 'role_arn', 'external_id'] }],
      properties: {
        account_id: str('Account id', { pattern: '^[0-9]{12}$', tag: true }),
        region: str('Region', { pattern: '^[a-z]{2}(-gov)?-[a-z]+-[0-9]$', tag: true }),
        role_arn: str('Role ARN', { pattern: '^arn:aws:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$' }),
        external_id: { type: 'string', title: 'External id', secret: true },
      },
    },
  },
  {
    slug: 'amazon-elastic-kubernetes-service',
    name: 'Amazon Elastic Kubernetes Service',
    description: 'An EKS cluster used as a container orchestrator.',
    category: 'container-orchestration',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['cluster_name', 'region'],
      additionalProperties: false,
      groups: [{ name: 'cluster', title: 'Cluster', properties: ['cluster_name', 'region', 'namespace'] }],
      properties: {
        cluster_name: str('Cluster name', { tag: true, maxLength: 100 }),
        region: str('Region', { pattern: '^[a-z]{2}(-gov)?-[a-z]+-[0-9]$', tag: true }),
        namespace: str('Default namespace', { maxLength: 63 }),
      },
    },
  },
  {
    slug: 'microsoft-azure',
    name: 'Microsoft Azure',
    description: 'Credentials for an Azure subscription.',
    category: 'cloud-providers',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['tenant_id', 'subscription_id', 'client_id', 'client_secret'],
      additionalProperties: false,
      groups: [{ name: 'subscription', title: 'Subscription', properties: ['tenant_id', 'subscription_id', 'client_id', 'client_secret', 'resource_group'] }],
      properties: {
        tenant_id: str('Tenant id', { format: 'uuid' }),
        subscription_id: str('Subscription id', { format: 'uuid', tag: true }),
        client_id: str('Client id', { format: 'uuid' }),
        client_secret: str('Client secret', { secret: true }),
        resource_group: str('Resource group', { tag: true }),
      },
    },
  },
  {
    slug: 'google-cloud',
    name: 'Google Cloud',
    description: 'Credentials for a Google Cloud project.',
    category: 'cloud-providers',
    allowDimensions: true,
    schema: {
      type: 'object',
      required: ['project_id', 'service_account_key'],
      additionalProperties: false,
      groups: [{ name: 'project', title: 'Project', properties: ['project_id', 'region', 'service_account_key'] }],
      properties: {
        project_id: str('Project id', { pattern: '^[a-z][a-z0-9-]{4,28}[a-z0-9]$', tag: true }),
        region: str('Region', { tag: true }),
        service_account_key: str('Service account key (JSON)', { secret: true }),
      },
    },
  },
  {
    slug: 'github',
    name: 'GitHub',
    description: 'A GitHub organization holding application repositories.',
    category: 'code-repository',
    allowDimensions: false,
    schema: {
      type: 'object',
      required: ['organization', 'installation_id'],
      additionalProperties: false,
      properties: {
        organization: str('Organization', { tag: true }),
        installation_id: { type: 'integer', title: 'App installation id', minimum: 1 },
        private_key: str('App private key (PEM)', { secret: true }),
      },
    },
  },
];

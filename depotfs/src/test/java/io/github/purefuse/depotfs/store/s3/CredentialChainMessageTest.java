package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The SDK's chain message (texts of SDK 2.59 as a tester's runs printed them at DEBUG) boiled down to the source that failed. */
class CredentialChainMessageTest {

    private static final String HEAD = "Unable to load credentials from any of the providers in the chain"
            + " AwsCredentialsProviderChain(credentialsProviders=[SystemPropertyCredentialsProvider(),"
            + " EnvironmentVariableCredentialsProvider(), WebIdentityTokenFileCredentialsProvider(),"
            + " ProfileCredentialsProvider(profileName=default), ContainerCredentialsProvider(),"
            + " InstanceProfileCredentialsProvider()]) : [";
    private static final String NO_KEYS = "SystemPropertyCredentialsProvider(): Unable to load credentials from system settings."
            + " Access key must be specified either via environment variable (AWS_ACCESS_KEY_ID) or system property"
            + " (aws.accessKeyId)., EnvironmentVariableCredentialsProvider(): Unable to load credentials from system settings."
            + " Access key must be specified either via environment variable (AWS_ACCESS_KEY_ID) or system property (aws.accessKeyId)., ";
    private static final String NO_WEB = "WebIdentityTokenFileCredentialsProvider(): Either the environment variable"
            + " AWS_WEB_IDENTITY_TOKEN_FILE or the javaproperty aws.webIdentityTokenFile must be set., ";
    private static final String NO_PROFILE = "ProfileCredentialsProvider(profileName=default): Profile file contained no"
            + " credentials for profile 'default': ProfileFile(sections=[]), ";
    private static final String NO_CONTAINER = "ContainerCredentialsProvider(): Cannot fetch credentials from container -"
            + " neither AWS_CONTAINER_CREDENTIALS_FULL_URI or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI environment variables are set., ";
    private static final String NO_IMDS = "InstanceProfileCredentialsProvider(): Failed to load credentials from IMDS.]";

    @Test
    void nothingSetUpNamesNoSource() {
        assertNull(S3Depot.configuredSourceFailure(HEAD + NO_KEYS + NO_WEB + NO_PROFILE + NO_CONTAINER + NO_IMDS));
        assertNull(S3Depot.configuredSourceFailure("Unable to load credentials from somewhere else"));
    }

    @Test
    void aFailingCredentialProcessIsNamed() {
        assertEquals("profile 'default': Failed to refresh process-based credentials.", S3Depot.configuredSourceFailure(HEAD
                + NO_KEYS + NO_WEB + "ProfileCredentialsProvider(profileName=default, profileFile=ProfileFile(sections=[profiles,"
                + " sso-session, services], profiles=[Profile(name=default, properties=[credential_process])])): Failed to"
                + " refresh process-based credentials., " + NO_CONTAINER + NO_IMDS));
    }

    @Test
    void aRefusingContainerEndpointIsNamed() {
        assertEquals("the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI or"
                + " AWS_CONTAINER_CREDENTIALS_RELATIVE_URI): Failed to load credentials from metadata service.",
                S3Depot.configuredSourceFailure(HEAD + NO_KEYS + NO_WEB + NO_PROFILE
                        + "ContainerCredentialsProvider(): Failed to load credentials from metadata service., " + NO_IMDS));
    }

    @Test
    void webIdentityWithoutStsIsNamed() {
        assertEquals("web identity (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE): To use web identity tokens, the 'sts'"
                + " service module must be on the class path.", S3Depot.configuredSourceFailure(HEAD + NO_KEYS
                + "WebIdentityTokenFileCredentialsProvider(): To use web identity tokens, the 'sts' service module must be on"
                + " the class path., " + NO_PROFILE + NO_CONTAINER + NO_IMDS));
    }
}
